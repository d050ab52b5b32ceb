//! Attribute-based filtering: `(op,attr/path,value[,value...]);(...)`.

use serde_json::Value;

use crate::{Error, Result};

/// A comparison operator of SOL013 Table 5.2.2-1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Equal to one of the values.
    Eq,
    /// Equal to none of the values.
    Neq,
    /// Greater than.
    Gt,
    /// Less than.
    Lt,
    /// Greater than or equal.
    Gte,
    /// Less than or equal.
    Lte,
    /// String contains one of the values.
    Cont,
    /// String contains none of the values.
    Ncont,
    /// Equal to one of the values.
    In,
    /// Equal to none of the values.
    Nin,
}

impl Op {
    fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "eq" => Op::Eq,
            "neq" => Op::Neq,
            "gt" => Op::Gt,
            "lt" => Op::Lt,
            "gte" => Op::Gte,
            "lte" => Op::Lte,
            "cont" => Op::Cont,
            "ncont" => Op::Ncont,
            "in" => Op::In,
            "nin" => Op::Nin,
            other => return Err(Error::InvalidFilter(format!("unknown operator {other:?}"))),
        })
    }

    fn single_valued(self) -> bool {
        matches!(self, Op::Gt | Op::Lt | Op::Gte | Op::Lte)
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Term {
    op: Op,
    path: Vec<String>,
    values: Vec<String>,
}

/// A parsed filter: every term must match (terms are joined by `;`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Filter {
    terms: Vec<Term>,
}

impl Filter {
    /// Parses `expr`; `attributes` lists the top-level attribute names the resource has.
    pub fn parse(expr: &str, attributes: &[&str]) -> Result<Self> {
        let mut terms = Vec::new();
        let mut rest = expr.trim();
        if rest.is_empty() {
            return Err(Error::InvalidFilter("empty filter".into()));
        }
        while !rest.is_empty() {
            let Some(body) = rest.strip_prefix('(') else {
                return Err(Error::InvalidFilter(format!("expected '(' at {rest:?}")));
            };
            let (fields, after) = split_term(body)?;
            terms.push(term(fields, attributes)?);
            rest = after;
            if let Some(r) = rest.strip_prefix(';') {
                rest = r;
                if rest.is_empty() {
                    return Err(Error::InvalidFilter("trailing ';'".into()));
                }
            } else if !rest.is_empty() {
                return Err(Error::InvalidFilter(format!("expected ';' at {rest:?}")));
            }
        }
        Ok(Self { terms })
    }

    /// How many comparisons it makes (each value of each term counts).
    pub fn size(&self) -> usize {
        self.terms.iter().map(|t| t.values.len().max(1)).sum()
    }

    /// Whether `doc` satisfies every term.
    pub fn matches(&self, doc: &Value) -> bool {
        self.terms.iter().all(|t| t.matches(doc))
    }

    /// The terms that require an attribute to equal one of some values (`eq`/`in`), as
    /// (path joined by '/', values): a store may narrow its rows by them (a column, or a
    /// path into a JSON column) before [`Filter::matches`] decides.
    pub fn equalities(&self) -> Vec<(String, &[String])> {
        self.terms
            .iter()
            .filter(|t| matches!(t.op, Op::Eq | Op::In))
            .map(|t| (t.path.join("/"), t.values.as_slice()))
            .collect()
    }
}

/// Splits one term body (after its '(') into its comma-separated fields, honouring
/// single-quoted values (`''` is a quote inside), and returns what follows its ')'.
fn split_term(body: &str) -> Result<(Vec<String>, &str)> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut chars = body.char_indices().peekable();
    let mut quoted = false;
    let mut was_quoted = false;
    while let Some((i, c)) = chars.next() {
        if quoted {
            if c == '\'' {
                if matches!(chars.peek(), Some((_, '\''))) {
                    cur.push('\'');
                    chars.next();
                } else {
                    quoted = false;
                }
            } else {
                cur.push(c);
            }
            continue;
        }
        match c {
            '\'' if cur.is_empty() && !was_quoted => {
                quoted = true;
                was_quoted = true;
            }
            ',' => {
                fields.push(std::mem::take(&mut cur));
                was_quoted = false;
            }
            ')' => {
                fields.push(cur);
                return Ok((fields, &body[i + 1..]));
            }
            '(' => return Err(Error::InvalidFilter("unexpected '(' inside a term".into())),
            _ if was_quoted => {
                return Err(Error::InvalidFilter("text after a quoted value".into()));
            }
            _ => cur.push(c),
        }
    }
    Err(Error::InvalidFilter(
        "unterminated term: missing ')'".into(),
    ))
}

fn term(fields: Vec<String>, attributes: &[&str]) -> Result<Term> {
    let mut it = fields.into_iter();
    let op = Op::parse(it.next().unwrap_or_default().trim())?;
    let attr = it.next().unwrap_or_default();
    if attr.is_empty() {
        return Err(Error::InvalidFilter("missing attribute name".into()));
    }
    let path: Vec<String> = attr.split('/').map(str::to_owned).collect();
    if path.iter().any(String::is_empty) {
        return Err(Error::InvalidFilter(format!(
            "invalid attribute path {attr:?}"
        )));
    }
    if !attributes.contains(&path[0].as_str()) {
        return Err(Error::InvalidFilter(format!(
            "unknown attribute {:?}",
            path[0]
        )));
    }
    let values: Vec<String> = it.collect();
    if values.is_empty() {
        return Err(Error::InvalidFilter(format!("no value for {attr:?}")));
    }
    if op.single_valued() && values.len() != 1 {
        return Err(Error::InvalidFilter(format!(
            "operator {op:?} takes exactly one value"
        )));
    }
    Ok(Term { op, path, values })
}

impl Term {
    fn matches(&self, doc: &Value) -> bool {
        let mut found = Vec::new();
        collect(doc, &self.path, &mut found);
        let any = |pred: &dyn Fn(&Value, &str) -> bool| {
            found.iter().any(|v| self.values.iter().any(|o| pred(v, o)))
        };
        match self.op {
            Op::Eq | Op::In => any(&equals),
            Op::Neq | Op::Nin => !any(&equals),
            Op::Cont => any(&contains),
            Op::Ncont => !any(&contains),
            Op::Gt => any(&|v, o| compare(v, o).is_some_and(|c| c.is_gt())),
            Op::Gte => any(&|v, o| compare(v, o).is_some_and(|c| c.is_ge())),
            Op::Lt => any(&|v, o| compare(v, o).is_some_and(|c| c.is_lt())),
            Op::Lte => any(&|v, o| compare(v, o).is_some_and(|c| c.is_le())),
        }
    }
}

/// How deep arrays nested in arrays are descended into at one step of a path (the
/// stores' JSON-path narrowing unwraps as many, so the two agree).
pub const MAX_NESTED_ARRAYS: usize = 4;

/// Collects the leaf values at `path`, descending into every element of arrays on the way
/// (arrays of arrays up to [`MAX_NESTED_ARRAYS`] deep at each step).
fn collect<'a>(v: &'a Value, path: &[String], out: &mut Vec<&'a Value>) {
    collect_nested(v, path, out, 0);
}

fn collect_nested<'a>(v: &'a Value, path: &[String], out: &mut Vec<&'a Value>, arrays: usize) {
    match v {
        Value::Array(items) if arrays < MAX_NESTED_ARRAYS => items
            .iter()
            .for_each(|i| collect_nested(i, path, out, arrays + 1)),
        Value::Array(_) => {}
        Value::Object(map) => match path.split_first() {
            Some((head, tail)) => {
                if let Some(next) = map.get(head) {
                    collect_nested(next, tail, out, 0);
                }
            }
            None => out.push(v),
        },
        _ if path.is_empty() => out.push(v),
        _ => {}
    }
}

fn equals(v: &Value, operand: &str) -> bool {
    match v {
        Value::String(s) => s == operand,
        Value::Number(n) => operand.parse::<f64>().ok() == n.as_f64(),
        Value::Bool(b) => operand.parse::<bool>().ok() == Some(*b),
        Value::Null => operand == "null",
        _ => false,
    }
}

fn contains(v: &Value, operand: &str) -> bool {
    matches!(v, Value::String(s) if s.contains(operand))
}

fn compare(v: &Value, operand: &str) -> Option<std::cmp::Ordering> {
    match v {
        Value::Number(n) => n.as_f64()?.partial_cmp(&operand.parse::<f64>().ok()?),
        Value::String(s) => Some(s.as_str().cmp(operand)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ATTRS: &[&str] = &[
        "id",
        "onboardingState",
        "userDefinedData",
        "softwareImages",
        "size",
    ];

    fn doc() -> Value {
        json!({
            "id": "a1",
            "onboardingState": "ONBOARDED",
            "size": 10,
            "userDefinedData": {"key": "it's", "n": 3, "flag": true},
            "softwareImages": [{"name": "img1"}, {"name": "img2"}]
        })
    }

    fn m(expr: &str) -> bool {
        Filter::parse(expr, ATTRS).unwrap().matches(&doc())
    }

    #[test]
    fn every_operator() {
        assert!(m("(eq,onboardingState,ONBOARDED)"));
        assert!(!m("(neq,onboardingState,ONBOARDED)"));
        assert!(m("(in,onboardingState,CREATED,ONBOARDED)"));
        assert!(m("(nin,onboardingState,CREATED,UPLOADING)"));
        assert!(m("(gt,size,9)") && !m("(gt,size,10)"));
        assert!(m("(gte,size,10)") && m("(lte,size,10)") && m("(lt,size,11)"));
        assert!(m("(cont,onboardingState,BOARD)") && m("(ncont,onboardingState,xyz)"));
    }

    #[test]
    fn nested_paths_arrays_quotes_and_conjunction() {
        assert!(m("(eq,userDefinedData/key,'it''s')"));
        assert!(m("(eq,userDefinedData/n,3);(eq,userDefinedData/flag,true)"));
        assert!(m("(eq,softwareImages/name,img2)"));
        assert!(!m("(eq,softwareImages/name,img3)"));
        assert!(m("(neq,userDefinedData/missing,x)"));
        assert!(!m("(eq,onboardingState,ONBOARDED);(eq,id,zz)"));
        assert!(!m("(eq,userDefinedData/key,'a,b');(neq,id,x)"));
    }

    #[test]
    fn arrays_nested_up_to_four_deep_are_descended_into() {
        let f = Filter::parse("(eq,userDefinedData/a/b,x)", ATTRS).unwrap();
        let four = json!({"userDefinedData": {"a": [[[[{"b": "x"}]]]]}});
        let five = json!({"userDefinedData": {"a": [[[[[{"b": "x"}]]]]]}});
        let leaf = json!({"userDefinedData": {"a": {"b": [[[["x"]]]]}}});
        assert!(f.matches(&four));
        assert!(!f.matches(&five));
        assert!(f.matches(&leaf));
    }

    #[test]
    fn malformed_filters_are_rejected() {
        for bad in [
            "",
            "eq,id,1",
            "(eq,id,1",
            "(xx,id,1)",
            "(eq,nope,1)",
            "(eq,id)",
            "(gt,size,1,2)",
            "(eq,id,1);",
            "(eq,id,1)(eq,id,2)",
            "(eq,user//x,1)",
            "(eq,id,'a'b)",
        ] {
            assert!(Filter::parse(bad, ATTRS).is_err(), "{bad:?} accepted");
        }
    }
}

//! Python literals as JSON. Tacker's v1 API stores an occurrence's request as
//! `str(body)`: a Python dict's repr (`{'flavourId': 'simple', 'x': True}`), not JSON.
//! Read here: dicts, lists, tuples, strings (either quote, with escapes), numbers,
//! `True`/`False`/`None`.

use serde_json::{Map, Number, Value};

/// `text` (a Python literal) as JSON; `Err` says where it stops making sense.
pub fn parse(text: &str) -> Result<Value, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("unexpected text at offset {}", p.i));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

/// Nesting deeper than this is refused (a request is never this deep).
const MAX_DEPTH: usize = 64;

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at offset {}", c as char, self.i))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err("nested too deep".into());
        }
        match self.peek() {
            Some(b'{') => self.dict(depth),
            Some(b'[') => self.seq(b']', depth),
            Some(b'(') => self.seq(b')', depth),
            Some(b'\'' | b'"') => self.string().map(Value::String),
            Some(_) => self.word(),
            None => Err("unexpected end".into()),
        }
    }

    fn dict(&mut self, depth: usize) -> Result<Value, String> {
        self.expect(b'{')?;
        let mut m = Map::new();
        loop {
            if self.peek() == Some(b'}') {
                self.i += 1;
                return Ok(Value::Object(m));
            }
            let key = match self.value(depth + 1)? {
                Value::String(s) => s,
                other => other.to_string(),
            };
            self.expect(b':')?;
            let v = self.value(depth + 1)?;
            m.insert(key, v);
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {}
                _ => return Err(format!("expected ',' or '}}' at offset {}", self.i)),
            }
        }
    }

    fn seq(&mut self, close: u8, depth: usize) -> Result<Value, String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            if self.peek() == Some(close) {
                self.i += 1;
                return Ok(Value::Array(out));
            }
            out.push(self.value(depth + 1)?);
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(c) if c == close => {}
                _ => return Err(format!("expected ',' at offset {}", self.i)),
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        let quote = self.s[self.i];
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(&c) = self.s.get(self.i) else {
                return Err("unterminated string".into());
            };
            self.i += 1;
            match c {
                c if c == quote => break,
                b'\\' => {
                    let Some(&e) = self.s.get(self.i) else {
                        return Err("unterminated string".into());
                    };
                    self.i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'0' => out.push(0),
                        b'x' => self.code(2, &mut out)?,
                        b'u' => self.code(4, &mut out)?,
                        b'U' => self.code(8, &mut out)?,
                        other => out.push(other),
                    }
                }
                other => out.push(other),
            }
        }
        String::from_utf8(out).map_err(|_| "a string is not UTF-8".into())
    }

    /// A `\x`, `\u` or `\U` escape of `digits` hex digits, as UTF-8 into `out`.
    fn code(&mut self, digits: usize, out: &mut Vec<u8>) -> Result<(), String> {
        let hex = self
            .s
            .get(self.i..self.i + digits)
            .and_then(|h| std::str::from_utf8(h).ok())
            .ok_or("a short escape")?;
        let n = u32::from_str_radix(hex, 16).map_err(|_| "a bad escape")?;
        self.i += digits;
        let c = char::from_u32(n).ok_or("an escape that is no character")?;
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        Ok(())
    }

    fn word(&mut self) -> Result<Value, String> {
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'+' | b'_'))
        {
            self.i += 1;
        }
        let w = std::str::from_utf8(&self.s[start..self.i]).unwrap_or_default();
        match w {
            "True" => Ok(Value::Bool(true)),
            "False" => Ok(Value::Bool(false)),
            "None" => Ok(Value::Null),
            _ => {
                if let Ok(i) = w.parse::<i64>() {
                    return Ok(Value::Number(i.into()));
                }
                w.parse::<f64>()
                    .ok()
                    .and_then(Number::from_f64)
                    .map(Value::Number)
                    .ok_or_else(|| format!("unexpected text at offset {start}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_requests_repr_reads_as_its_json() {
        let v = parse(
            r#"{'flavourId': 'simple', 'additionalParams': {'lcm-kubernetes-def-files': ['Files/a.yaml'], 'n': 3, 'ok': True, 'x': None, 'f': 0.5}, "quote": "it's", 'esc': 'a\'b\\c\n\xe9\u20ac', 't': (1, 2)}"#,
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"flavourId": "simple", "additionalParams": {
                "lcm-kubernetes-def-files": ["Files/a.yaml"], "n": 3, "ok": true, "x": null,
                "f": 0.5}, "quote": "it's", "esc": "a'b\\c\né€", "t": [1, 2]})
        );
        assert_eq!(parse("{}").unwrap(), json!({}));
    }

    #[test]
    fn what_is_no_literal_is_an_error() {
        for bad in [
            "{'a': }",
            "{'a' 1}",
            "'open",
            "[1, 2",
            "{'a': os.system}",
            "{'a': 1} x",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert!(parse(&deep).is_err());
    }
}

//! Tables for people, JSON or YAML for scripts.

use std::io::Write;

use clap::ValueEnum;
use serde_json::Value;

use crate::error::Result;

/// `--output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// Aligned columns.
    #[default]
    Table,
    /// JSON.
    Json,
    /// YAML.
    Yaml,
}

/// Where and how results are printed.
pub struct Out<'a> {
    /// The format.
    pub format: Format,
    /// Standard output (a buffer in tests).
    pub w: &'a mut dyn Write,
}

impl std::fmt::Debug for Out<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Out").field("format", &self.format).finish()
    }
}

/// A cell: strings as they are, other values as compact JSON.
pub fn cell(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

impl Out<'_> {
    fn structured(&mut self, v: &Value) -> Result<bool> {
        match self.format {
            Format::Json => {
                writeln!(
                    self.w,
                    "{}",
                    serde_json::to_string_pretty(v).unwrap_or_default()
                )?;
                Ok(true)
            }
            Format::Yaml => {
                let y = serde_saphyr::to_string(v)
                    .map_err(|e| crate::error::Error::Local(format!("YAML: {e}")))?;
                write!(self.w, "{y}")?;
                Ok(true)
            }
            Format::Table => Ok(false),
        }
    }

    /// A list: the given columns (header, JSON pointer) as a table.
    pub fn list(&mut self, items: &[Value], columns: &[(&str, &str)]) -> Result<()> {
        if self.structured(&Value::Array(items.to_vec()))? {
            return Ok(());
        }
        let rows: Vec<Vec<String>> = items
            .iter()
            .map(|i| columns.iter().map(|(_, p)| cell(i.pointer(p))).collect())
            .collect();
        let mut widths: Vec<usize> = columns.iter().map(|(h, _)| h.len()).collect();
        for r in &rows {
            for (w, c) in widths.iter_mut().zip(r) {
                *w = (*w).max(c.chars().count());
            }
        }
        let line = |cells: Vec<String>| {
            cells
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:<w$}"))
                .collect::<Vec<_>>()
                .join("  ")
                .trim_end()
                .to_owned()
        };
        writeln!(
            self.w,
            "{}",
            line(columns.iter().map(|(h, _)| (*h).to_owned()).collect())
        )?;
        for r in rows {
            writeln!(self.w, "{}", line(r))?;
        }
        Ok(())
    }

    /// One object: a field/value table.
    pub fn show(&mut self, v: &Value) -> Result<()> {
        if self.structured(v)? {
            return Ok(());
        }
        let Value::Object(m) = v else {
            writeln!(self.w, "{}", cell(Some(v)))?;
            return Ok(());
        };
        let width = m.keys().map(String::len).max().unwrap_or(0);
        for (k, val) in m {
            if k == "_links" {
                continue;
            }
            writeln!(self.w, "{k:<width$}  {}", cell(Some(val)))?;
        }
        Ok(())
    }

    /// A plain line for people (also printed in JSON/YAML mode, as a comment-free line).
    pub fn say(&mut self, line: &str) -> Result<()> {
        writeln!(self.w, "{line}")?;
        Ok(())
    }

    /// A result for scripts: `{"id": ...}`-like values in JSON/YAML, `line` in tables.
    pub fn result(&mut self, v: &Value, line: &str) -> Result<()> {
        if self.structured(v)? {
            return Ok(());
        }
        self.say(line)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn tables_align_columns() {
        let mut buf = Vec::new();
        let mut o = Out {
            format: Format::Table,
            w: &mut buf,
        };
        o.list(
            &[
                json!({"id": "a", "s": "ONBOARDED"}),
                json!({"id": "bbb", "s": null}),
            ],
            &[("ID", "/id"), ("STATE", "/s")],
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "ID   STATE\na    ONBOARDED\nbbb\n"
        );
    }

    #[test]
    fn json_and_yaml_are_structured() {
        let mut buf = Vec::new();
        Out {
            format: Format::Json,
            w: &mut buf,
        }
        .show(&json!({"a": 1}))
        .unwrap();
        assert_eq!(
            serde_json::from_slice::<Value>(&buf).unwrap(),
            json!({"a": 1})
        );
        let mut buf = Vec::new();
        Out {
            format: Format::Yaml,
            w: &mut buf,
        }
        .show(&json!({"a": [1, 2]}))
        .unwrap();
        assert!(String::from_utf8(buf).unwrap().contains("a:"));
    }
}

//! YAML parsing within budgets (alias bombs, deep nesting, huge documents).

use serde_json::Value;

use crate::error::Problem;
use crate::limits::Limits;

/// Parses one YAML document into JSON values, within the limits.
pub fn parse(file: &str, text: &str, limits: &Limits) -> Result<Value, Problem> {
    let mut options = serde_saphyr::Options::default();
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = limits.max_yaml_depth;
    budget.max_nodes = limits.max_yaml_nodes;
    budget.max_aliases = limits.max_yaml_aliases;
    budget.max_total_scalar_bytes = usize::try_from(limits.max_text_size).unwrap_or(usize::MAX);
    budget.max_documents = 1;
    options.budget = Some(budget);
    options.alias_limits.max_total_replayed_events = limits.max_yaml_nodes;
    options.with_snippet = false;
    // YAML 1.2 core booleans: `y`, `on`, `no` stay strings (names, not flags).
    options.strict_booleans = true;
    // Digests and ids like `0123` keep their leading zeros.
    options.leading_zero_numbers_as_strings = true;
    let value: Value = serde_saphyr::from_str_with_options(text, options).map_err(|e| {
        Problem::file(
            file,
            format!("invalid YAML: {}", first_line(&e.to_string())),
        )
    })?;
    Ok(value)
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plain_yaml() {
        let v = parse(
            "a.yaml",
            "a: 1\nb: [x, y]\nc: {d: '1.0'}\n",
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(v["b"][1], "y");
        assert_eq!(v["c"]["d"], "1.0");
    }

    #[test]
    fn alias_bombs_and_deep_nesting_are_refused() {
        let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        let mut prev = 'a';
        for c in 'b'..='k' {
            bomb.push_str(&format!("{c}: &{c} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
            prev = c;
        }
        let err = parse("bomb.yaml", &bomb, &Limits::default()).unwrap_err();
        assert!(err.reason.contains("invalid YAML"), "{err}");
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(parse("deep.yaml", &deep, &Limits::default()).is_err());
        let nested: String = (0..200)
            .map(|i| format!("{}k:\n", "  ".repeat(i)))
            .collect();
        assert!(parse("nested.yaml", &nested, &Limits::default()).is_err());
    }

    #[test]
    fn syntax_errors_name_the_file() {
        let err = parse("Definitions/x.yaml", "a: [1, 2\n", &Limits::default()).unwrap_err();
        assert_eq!(err.file, "Definitions/x.yaml");
    }
}

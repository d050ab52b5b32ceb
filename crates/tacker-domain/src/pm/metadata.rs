//! Upstream Tacker's `metadata.monitoring` of PM job and threshold requests: which
//! monitoring system, and (`targetsInfo`) Prometheus hosts to copy rule files to over
//! SFTP. Rules here go where the operator configured them (`[pm]`), to the one Prometheus
//! of the deployment, so a request naming its own targets is refused rather than
//! accepted and delivered elsewhere.

use serde_json::Value;

/// Checks `metadata` of a request (400 text when it asks for what is not done).
pub fn check(metadata: Option<&Value>) -> Result<(), String> {
    let Some(m) = metadata else {
        return Ok(());
    };
    let Some(m) = m.as_object() else {
        return Err("metadata must be an object".into());
    };
    let Some(monitoring) = m.get("monitoring") else {
        return Ok(());
    };
    let Some(monitoring) = monitoring.as_object() else {
        return Err("metadata.monitoring must be an object".into());
    };
    if let Some(name) = monitoring.get("monitorName")
        && name != "prometheus"
    {
        return Err(format!(
            "metadata.monitoring.monitorName {name} is not supported: only \"prometheus\""
        ));
    }
    let targets = monitoring.get("targetsInfo");
    if targets.is_some_and(|t| !(t.is_null() || t.as_array().is_some_and(Vec::is_empty))) {
        return Err(
            "metadata.monitoring.targetsInfo (Prometheus hosts to copy rule files to \
                    over SFTP) is not supported: the rules are delivered where the operator \
                    configured them ([pm] rules_dir, prometheus_rule); send the request \
                    without targetsInfo"
                .into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::check;

    #[test]
    fn prometheus_without_targets_is_taken_targets_and_other_monitors_are_refused() {
        assert!(check(None).is_ok());
        assert!(check(Some(&json!({}))).is_ok());
        assert!(
            check(Some(&json!({"monitoring": {"monitorName": "prometheus",
            "driverType": "external", "targetsInfo": []}})))
            .is_ok()
        );
        let e = check(Some(&json!({"monitoring": {"monitorName": "prometheus",
            "targetsInfo": [{"prometheusHost": "prom.example", "prometheusHostPort": 22}]}})))
        .unwrap_err();
        assert!(e.contains("targetsInfo"), "{e}");
        assert!(check(Some(&json!({"monitoring": {"monitorName": "zabbix"}}))).is_err());
        assert!(check(Some(&json!("x"))).is_err());
    }
}

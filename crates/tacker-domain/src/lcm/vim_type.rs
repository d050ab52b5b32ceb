//! VIM types: their canonical names, and which this VNFM drives.

/// Kubernetes (SOL003's name; `kubernetes` is Tacker's legacy one).
pub const KUBERNETES: &str = "ETSINFV.KUBERNETES.V_1";
/// OpenStack with Keystone v3 (`openstack` is Tacker's legacy name).
pub const OPENSTACK: &str = "ETSINFV.OPENSTACK_KEYSTONE.V_3";
/// Kubernetes driven through Helm 3 charts.
pub const HELM: &str = "ETSINFV.HELM.V_3";
/// The simulated VIM for tests and demos, there only with `lcm.simulated_vim`.
pub const SIMULATED: &str = "TACKER.SIM.V_1";

/// The canonical name of a VIM type (`kubernetes` -> `ETSINFV.KUBERNETES.V_1`).
pub fn canonical(raw: &str) -> String {
    match raw {
        "kubernetes" | KUBERNETES => KUBERNETES.to_owned(),
        "openstack" | OPENSTACK => OPENSTACK.to_owned(),
        other => other.to_owned(),
    }
}

/// Why `raw` cannot be used, if it cannot: the simulated VIM while `simulated_vim` is
/// off (naming the setting that enables it), or a type nothing drives.
pub fn unsupported(raw: &str, simulated_vim: bool) -> Option<String> {
    match canonical(raw).as_str() {
        KUBERNETES | OPENSTACK | HELM => None,
        SIMULATED if simulated_vim => None,
        SIMULATED => Some(format!(
            "VIM type {SIMULATED} (the simulated VIM) is disabled: enable it with \
             lcm.simulated_vim = true (TACKER__LCM__SIMULATED_VIM=true)"
        )),
        _ => Some(format!(
            "unknown VIM type {raw:?}: supported are {KUBERNETES} (or kubernetes), {HELM}, \
             {OPENSTACK} (or openstack){}",
            if simulated_vim {
                format!(" and {SIMULATED}")
            } else {
                format!(" ({SIMULATED} with lcm.simulated_vim = true)")
            }
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_names_are_canonical_and_only_known_types_pass() {
        assert_eq!(canonical("openstack"), OPENSTACK);
        assert_eq!(canonical("kubernetes"), KUBERNETES);
        assert_eq!(unsupported("kubernetes", false), None);
        assert_eq!(unsupported(OPENSTACK, false), None);
        assert_eq!(unsupported(SIMULATED, true), None);
        assert!(
            unsupported(SIMULATED, false)
                .unwrap()
                .contains("lcm.simulated_vim")
        );
        assert!(
            unsupported("vmware", true)
                .unwrap()
                .contains("unknown VIM type \"vmware\"")
        );
    }
}

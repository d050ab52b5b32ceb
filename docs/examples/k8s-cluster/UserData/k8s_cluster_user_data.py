# Never run. Requests name it as lcm-operation-user-data with the class
# KubernetesClusterUserData, which Tacker (Rust) maps to its built-in handling of the
# Base HOT's nfv parameter. Code shipped in a package is never executed.

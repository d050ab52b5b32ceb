# Never run. The VNFD names this file as the artifact of its Vnflcm hooks; Tacker (Rust)
# maps it to the built-in kubernetes-cluster management driver through [mgmt] drivers
# (the default configuration does). Code shipped in a package is never executed.

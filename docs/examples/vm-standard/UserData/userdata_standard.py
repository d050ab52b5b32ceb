# Named by lcm-operation-user-data, as in upstream Tacker's packages. Tacker (Rust) never
# runs package code: lcm-operation-user-data-class StandardUserData selects its built-in
# mapping (one copy of each VDU's nested template per VNFC).

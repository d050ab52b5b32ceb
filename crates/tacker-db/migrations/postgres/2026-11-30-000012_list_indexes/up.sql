-- Lists narrowed by their most used filters, in their keyset order.
CREATE INDEX vnf_lcm_op_occs_instance_listing ON vnf_lcm_op_occs (vnf_instance_id, created_at, id);
CREATE INDEX vnf_lcm_op_occs_state_listing ON vnf_lcm_op_occs (operation_state, created_at, id);
CREATE INDEX vnf_packages_onboarding_listing ON vnf_packages (onboarding_state, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX vnf_instances_state_listing ON vnf_instances (instantiation_state, created_at, id);

DROP TABLE notification_outbox;
DROP TABLE lccn_subscriptions;
DROP TABLE vnf_lcm_op_occs;
DROP TABLE vnf_instances;

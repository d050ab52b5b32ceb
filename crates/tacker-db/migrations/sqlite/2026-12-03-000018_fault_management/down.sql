DROP INDEX vnf_lcm_op_occs_automatic;
DROP TABLE auto_scales;
DROP TABLE auto_heals;
DROP TABLE fm_subscriptions;
DROP TABLE alarms;

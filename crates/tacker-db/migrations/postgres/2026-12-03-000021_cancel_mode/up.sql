-- The mode of a pending cancellation (`is_cancel_pending` true): GRACEFUL or FORCEFUL.
ALTER TABLE vnf_lcm_op_occs ADD COLUMN cancel_mode TEXT;

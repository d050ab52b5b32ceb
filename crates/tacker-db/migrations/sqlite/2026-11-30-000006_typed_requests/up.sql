-- The request of an operation occurrence, typed (what the engine reads); the body as
-- received stays in operation_params. NULL for occurrences created before this column:
-- they are read from operation_params.
ALTER TABLE vnf_lcm_op_occs ADD COLUMN request TEXT;

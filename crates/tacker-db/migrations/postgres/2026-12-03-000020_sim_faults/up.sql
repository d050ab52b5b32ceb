-- Failures the simulated VIM injected (`additionalParams.sim.failTimes`), per operation
-- occurrence and step, counted where every conductor sees them: a retry that lands on
-- another conductor continues the count. Only tests and demos fill it.
CREATE TABLE sim_faults (
    op_occ_id TEXT NOT NULL,
    step TEXT NOT NULL,
    failures INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (op_occ_id, step)
);

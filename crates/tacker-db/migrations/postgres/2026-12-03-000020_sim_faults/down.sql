DROP TABLE sim_faults;

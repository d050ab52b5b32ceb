DROP TABLE pm_thresholds;
DROP TABLE pm_reports;
DROP TABLE pm_jobs;

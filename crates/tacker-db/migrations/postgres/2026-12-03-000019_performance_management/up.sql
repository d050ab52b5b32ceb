-- PM jobs and thresholds (SOL003 VNF PM): `body` is the job or threshold (its
-- subscriber's credentials sealed); their notifications share the outbox under their id.
CREATE TABLE pm_jobs (
    id TEXT PRIMARY KEY,
    tenant TEXT,
    body TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE TABLE pm_reports (
    id TEXT PRIMARY KEY,
    job_id TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX pm_reports_job ON pm_reports (job_id, created_at);
CREATE TABLE pm_thresholds (
    id TEXT PRIMARY KEY,
    tenant TEXT,
    body TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);

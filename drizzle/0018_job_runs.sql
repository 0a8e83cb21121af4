CREATE TABLE "job_runs" (
	"job" text NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"holder" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "job_runs_job_period_start_pk" PRIMARY KEY("job","period_start")
);

CREATE TABLE `runner_usage` (
	`run_id` text NOT NULL,
	`kind` text NOT NULL,
	`submission_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`challenge_id` text NOT NULL,
	`runner_ms` integer NOT NULL,
	`recorded_at` integer NOT NULL,
	PRIMARY KEY(`run_id`, `kind`),
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `runner_usage_agent_idx` ON `runner_usage` (`agent_id`,`recorded_at`);--> statement-breakpoint
ALTER TABLE `submissions` ADD `failure_code` text;
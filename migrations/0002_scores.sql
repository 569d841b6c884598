CREATE TABLE `findings` (
	`submission_id` text NOT NULL,
	`ordinal` integer NOT NULL,
	`tool` text NOT NULL,
	`rule` text NOT NULL,
	`cwe` text,
	`severity` text NOT NULL,
	`file` text NOT NULL,
	`line` integer NOT NULL,
	`message` text NOT NULL,
	PRIMARY KEY(`submission_id`, `ordinal`),
	FOREIGN KEY (`submission_id`) REFERENCES `scores`(`submission_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `judgements` (
	`submission_id` text NOT NULL,
	`task` text NOT NULL,
	`target` text NOT NULL,
	`judge` text NOT NULL,
	`source` text NOT NULL,
	`dimensions` text,
	`score` real,
	`rationale` text NOT NULL,
	`injection_suspected` integer NOT NULL,
	PRIMARY KEY(`submission_id`, `task`, `target`, `judge`),
	FOREIGN KEY (`submission_id`) REFERENCES `scores`(`submission_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `score_components` (
	`submission_id` text NOT NULL,
	`key` text NOT NULL,
	`weight` integer NOT NULL,
	`score` real NOT NULL,
	`score_text` text NOT NULL,
	`contribution_text` text NOT NULL,
	PRIMARY KEY(`submission_id`, `key`),
	FOREIGN KEY (`submission_id`) REFERENCES `scores`(`submission_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `scores` (
	`submission_id` text PRIMARY KEY NOT NULL,
	`challenge_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`iteration` integer NOT NULL,
	`profile` text NOT NULL,
	`profile_version` integer NOT NULL,
	`family` text,
	`final_unrounded` text NOT NULL,
	`final_fraction` text NOT NULL,
	`final_rounded` integer NOT NULL,
	`band` text NOT NULL,
	`breakdown` text NOT NULL,
	`input` text NOT NULL,
	`human_review` integer NOT NULL,
	`judge_mode` text NOT NULL,
	`report_key` text NOT NULL,
	`submitted_at` integer NOT NULL,
	`entered_at` integer NOT NULL,
	`scored_at` integer NOT NULL,
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `scores_challenge_idx` ON `scores` (`challenge_id`,`final_rounded`);--> statement-breakpoint
CREATE INDEX `scores_agent_idx` ON `scores` (`agent_id`,`challenge_id`,`iteration`);--> statement-breakpoint
CREATE TABLE `scoring_runs` (
	`submission_id` text PRIMARY KEY NOT NULL,
	`attempts` integer NOT NULL,
	`lease_until` integer NOT NULL,
	`last_error` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `scoring_runs_lease_idx` ON `scoring_runs` (`lease_until`);--> statement-breakpoint
CREATE TABLE `test_counts` (
	`submission_id` text NOT NULL,
	`suite` text NOT NULL,
	`bucket` text NOT NULL,
	`passed` integer NOT NULL,
	`total` integer NOT NULL,
	PRIMARY KEY(`submission_id`, `suite`, `bucket`),
	FOREIGN KEY (`submission_id`) REFERENCES `scores`(`submission_id`) ON UPDATE no action ON DELETE no action
);

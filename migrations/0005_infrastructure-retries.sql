CREATE TABLE `submission_rejudges` (
	`id` text PRIMARY KEY NOT NULL,
	`submission_id` text NOT NULL,
	`operator_id` text NOT NULL,
	`reason` text NOT NULL,
	`previous_failure_code` text,
	`previous_failure_reason` text,
	`requested_at` integer NOT NULL,
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`operator_id`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `submission_rejudges_submission_idx` ON `submission_rejudges` (`submission_id`,`requested_at`);--> statement-breakpoint
ALTER TABLE `submissions` ADD `waiting_reason` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `waiting_since` integer;--> statement-breakpoint
ALTER TABLE `submissions` ADD `retry_at` integer;--> statement-breakpoint
ALTER TABLE `submissions` ADD `published_at` integer;--> statement-breakpoint
-- Data, not schema (added by hand): rows settled before this migration were published by the
-- code of their time; only outcomes settled from now on are reconciled.
UPDATE `submissions` SET `published_at` = COALESCE(`scored_at`, `failed_at`) WHERE `status` IN ('scored', 'failed');

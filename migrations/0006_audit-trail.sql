CREATE TABLE `audit_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`challenge_id` text NOT NULL,
	`submission_id` text,
	`agent_id` text,
	`type` text NOT NULL,
	`scope` text NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_id` text NOT NULL,
	`cause` text NOT NULL,
	`before` text,
	`after` text,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `audit_events_id_unique` ON `audit_events` (`id`);--> statement-breakpoint
CREATE INDEX `audit_events_submission_idx` ON `audit_events` (`submission_id`,`seq`);--> statement-breakpoint
CREATE INDEX `audit_events_challenge_idx` ON `audit_events` (`challenge_id`,`scope`,`seq`);--> statement-breakpoint
CREATE TABLE `submission_removals` (
	`submission_id` text PRIMARY KEY NOT NULL,
	`operator_id` text NOT NULL,
	`reason` text NOT NULL,
	`removed_at` integer NOT NULL,
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`operator_id`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
-- Added by hand (drizzle-kit cannot express triggers): the audit trail is append-only, so the
-- database itself refuses to change or delete a row, whatever code runs against it.
CREATE TRIGGER `audit_events_no_update` BEFORE UPDATE ON `audit_events`
BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER `audit_events_no_delete` BEFORE DELETE ON `audit_events`
BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
--> statement-breakpoint
-- A removal stands: the database refuses to change or delete one.
CREATE TRIGGER `submission_removals_no_update` BEFORE UPDATE ON `submission_removals`
BEGIN SELECT RAISE(ABORT, 'submission_removals is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER `submission_removals_no_delete` BEFORE DELETE ON `submission_removals`
BEGIN SELECT RAISE(ABORT, 'submission_removals is append-only'); END;

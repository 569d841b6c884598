CREATE TABLE `challenge_versions` (
	`challenge_id` text NOT NULL,
	`version` integer NOT NULL,
	`base_version` integer NOT NULL,
	`bundle_key` text NOT NULL,
	`bundle_sha256` text NOT NULL,
	`bundle_manifest` text NOT NULL,
	`qa_report` text,
	`qa_passed` integer NOT NULL,
	`state` text NOT NULL,
	`note` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`decided_by` text,
	`decided_at` integer,
	`decision_id` text,
	PRIMARY KEY(`challenge_id`, `version`),
	FOREIGN KEY (`challenge_id`) REFERENCES `challenges`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `challenge_versions_state_idx` ON `challenge_versions` (`challenge_id`,`state`);--> statement-breakpoint
CREATE TABLE `rescores` (
	`challenge_id` text NOT NULL,
	`version` integer NOT NULL,
	`submission_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`lease_until` integer DEFAULT 0 NOT NULL,
	`retry_at` integer DEFAULT 0 NOT NULL,
	`waiting_since` integer,
	`error` text,
	`score_write` text,
	`full_score` text,
	`changed_tests` text,
	`final_rounded` integer,
	`final_unrounded` text,
	`queued_at` integer NOT NULL,
	`settled_at` integer,
	PRIMARY KEY(`challenge_id`, `version`, `submission_id`),
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `rescores_state_idx` ON `rescores` (`state`,`lease_until`);--> statement-breakpoint
CREATE TABLE `superseded_scores` (
	`submission_id` text NOT NULL,
	`version` integer NOT NULL,
	`challenge_id` text NOT NULL,
	`score` text NOT NULL,
	`superseded_at` integer NOT NULL,
	PRIMARY KEY(`submission_id`, `version`),
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `challenges` ADD `version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `scores` ADD `challenge_version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
-- Hand-added (docs/design.md §30): a replaced score is kept whole; the database refuses to
-- change or delete one, and a version's bundle never changes once uploaded.
CREATE TRIGGER `superseded_scores_no_update` BEFORE UPDATE ON `superseded_scores`
BEGIN SELECT RAISE(ABORT, 'superseded_scores is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER `superseded_scores_no_delete` BEFORE DELETE ON `superseded_scores`
BEGIN SELECT RAISE(ABORT, 'superseded_scores is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER `challenge_versions_bundle_fixed` BEFORE UPDATE OF `bundle_key`, `bundle_sha256`, `bundle_manifest` ON `challenge_versions`
BEGIN SELECT RAISE(ABORT, 'a challenge version''s bundle never changes'); END;
--> statement-breakpoint
CREATE TRIGGER `challenge_versions_no_delete` BEFORE DELETE ON `challenge_versions`
BEGIN SELECT RAISE(ABORT, 'challenge versions are never deleted'); END;

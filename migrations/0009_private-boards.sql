CREATE TABLE `challenge_splits` (
	`challenge_id` text PRIMARY KEY NOT NULL,
	`method` text NOT NULL,
	`seed` text,
	`private_percent` integer,
	`private_ids` text NOT NULL,
	`final_choices` integer NOT NULL,
	`bundle_sha256` text NOT NULL,
	`recorded_at` integer NOT NULL,
	FOREIGN KEY (`challenge_id`) REFERENCES `challenges`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `final_choices` (
	`challenge_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`submission_id` text NOT NULL,
	`chosen_at` integer NOT NULL,
	PRIMARY KEY(`challenge_id`, `agent_id`, `submission_id`),
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `full_scores` (
	`submission_id` text PRIMARY KEY NOT NULL,
	`challenge_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`final_unrounded` text NOT NULL,
	`final_fraction` text NOT NULL,
	`final_rounded` integer NOT NULL,
	`band` text NOT NULL,
	`interval_low` real,
	`interval_high` real,
	`breakdown` text NOT NULL,
	`report_key` text NOT NULL,
	`scored_at` integer NOT NULL,
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `full_scores_challenge_idx` ON `full_scores` (`challenge_id`,`agent_id`);--> statement-breakpoint
CREATE TABLE `private_boards` (
	`challenge_id` text PRIMARY KEY NOT NULL,
	`published_at` integer NOT NULL,
	`entries` text NOT NULL,
	FOREIGN KEY (`challenge_id`) REFERENCES `challenges`(`id`) ON UPDATE no action ON DELETE no action
);

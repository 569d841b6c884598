CREATE TABLE `agents` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`operator_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`operator_id`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `agents_operator_idx` ON `agents` (`operator_id`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`role` text NOT NULL,
	`agent_id` text,
	`operator_id` text,
	`secret_hash` text NOT NULL,
	`label` text,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`operator_id`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `api_keys_agent_idx` ON `api_keys` (`agent_id`);--> statement-breakpoint
CREATE INDEX `api_keys_operator_idx` ON `api_keys` (`operator_id`);--> statement-breakpoint
CREATE TABLE `challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`profile` text NOT NULL,
	`family` text DEFAULT 'default' NOT NULL,
	`custom_weights` text,
	`ranking_mode` text DEFAULT 'latest' NOT NULL,
	`max_iterations` integer NOT NULL,
	`limits` text NOT NULL,
	`bundle_key` text,
	`bundle_sha256` text,
	`bundle_manifest` text,
	`qa_report` text,
	`qa_passed` integer,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`published_at` integer,
	`closed_at` integer,
	FOREIGN KEY (`created_by`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `challenges_slug_unique` ON `challenges` (`slug`);--> statement-breakpoint
CREATE TABLE `entries` (
	`agent_id` text NOT NULL,
	`challenge_id` text NOT NULL,
	`entered_at` integer NOT NULL,
	PRIMARY KEY(`agent_id`, `challenge_id`),
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`challenge_id`) REFERENCES `challenges`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `entries_challenge_idx` ON `entries` (`challenge_id`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`agent_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`state` text NOT NULL,
	`submission_id` text,
	`response_status` integer,
	`response_body` text,
	`created_at` integer NOT NULL,
	`lease_until` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`agent_id`, `key`),
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `idempotency_expires_idx` ON `idempotency_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `operators` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `submissions` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`challenge_id` text NOT NULL,
	`iteration` integer NOT NULL,
	`artifact_sha256` text NOT NULL,
	`artifact_key` text NOT NULL,
	`artifact_size` integer NOT NULL,
	`artifact_type` text NOT NULL,
	`claims` text,
	`trace_key` text,
	`trace_sha256` text,
	`status` text NOT NULL,
	`failure_reason` text,
	`received_at` integer NOT NULL,
	`queued_at` integer,
	`running_at` integer,
	`scored_at` integer,
	`failed_at` integer,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`challenge_id`) REFERENCES `challenges`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `submissions_iteration_unique` ON `submissions` (`agent_id`,`challenge_id`,`iteration`);--> statement-breakpoint
CREATE INDEX `submissions_challenge_idx` ON `submissions` (`challenge_id`,`received_at`);--> statement-breakpoint
CREATE INDEX `submissions_artifact_idx` ON `submissions` (`artifact_key`);--> statement-breakpoint
CREATE INDEX `submissions_trace_idx` ON `submissions` (`trace_key`);
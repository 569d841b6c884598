CREATE TABLE `gateway_calls` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`challenge_id` text NOT NULL,
	`model` text NOT NULL,
	`tokens_in` integer,
	`tokens_out` integer,
	`status` integer,
	`failure` text,
	`streamed` integer NOT NULL,
	`request_bytes` integer NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`challenge_id`) REFERENCES `challenges`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `gateway_calls_entry_idx` ON `gateway_calls` (`agent_id`,`challenge_id`,`started_at`);
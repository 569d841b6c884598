CREATE TABLE `webhook_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`message_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`at` integer NOT NULL,
	`outcome` text NOT NULL,
	`reason` text,
	`status` integer,
	`latency_ms` integer NOT NULL,
	`response` text,
	`response_truncated` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_message_idx` ON `webhook_attempts` (`message_id`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`url` text NOT NULL,
	`event_types` text NOT NULL,
	`secrets` text NOT NULL,
	`disabled_at` integer,
	`disabled_reason` text,
	`failing_since` integer,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`last_success_at` integer,
	`gone` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_agent_idx` ON `webhook_endpoints` (`agent_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`endpoint_id` text NOT NULL,
	`event_id` text NOT NULL,
	`type` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_messages_endpoint_event_idx` ON `webhook_messages` (`endpoint_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_messages_endpoint_created_idx` ON `webhook_messages` (`endpoint_id`,`created_at`);
ALTER TABLE `agents` ADD `baseline_kind` text;--> statement-breakpoint
ALTER TABLE `agents` ADD `baseline_of` text;
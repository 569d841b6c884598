ALTER TABLE `scores` ADD `files_sha256` text;--> statement-breakpoint
CREATE INDEX `scores_files_idx` ON `scores` (`challenge_id`,`files_sha256`);
CREATE TABLE `price_tables` (
	`revision` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`as_of` text NOT NULL,
	`models` text NOT NULL,
	`set_by` text NOT NULL,
	`set_at` integer NOT NULL,
	FOREIGN KEY (`set_by`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `scores` ADD `usage` text;--> statement-breakpoint
-- Added by hand (drizzle-kit cannot express triggers): a price revision, once set, stands; a
-- new price is a new revision, so every cost shown can name the prices it was computed with.
CREATE TRIGGER `price_tables_no_update` BEFORE UPDATE ON `price_tables`
BEGIN SELECT RAISE(ABORT, 'price_tables is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER `price_tables_no_delete` BEFORE DELETE ON `price_tables`
BEGIN SELECT RAISE(ABORT, 'price_tables is append-only'); END;

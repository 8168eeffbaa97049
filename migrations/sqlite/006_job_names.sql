-- A job may carry a name (the list's file name, from the CLI; any text from the API).

ALTER TABLE jobs ADD COLUMN name TEXT;

-- The triage list's text search (ILIKE '%q%' over title, externalId, author
-- and branch) chooses between walking the (lastFailureAt, id) index and the
-- pg_trgm bitmap indexes by the estimated number of matches. With the default
-- statistics target those estimates swung from ~400 to ~60,000 for the same
-- author-name search at a million changes, and the wrong pick cost 300 ms
-- instead of 25 ms (bench/triage.ts). A larger sample keeps them steady.
-- (Prisma's schema has no syntax for this, and its diff ignores it.)
ALTER TABLE "Change"
  ALTER COLUMN "title" SET STATISTICS 1000,
  ALTER COLUMN "externalId" SET STATISTICS 1000,
  ALTER COLUMN "author" SET STATISTICS 1000,
  ALTER COLUMN "branch" SET STATISTICS 1000;

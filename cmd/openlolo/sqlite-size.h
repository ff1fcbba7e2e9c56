/*
 * SQLite features the box does not use, built out of make arm64 (issue 28:
 * 0.2 MB of the binary). The box's queries are plain tables and indexes:
 * no full-text search (FTS3), no R-trees, no JSON functions, no shared
 * cache, no sqlite3_complete. go-sqlite3 turns FTS3 and R-tree on with
 * #cgo -D flags, which CGO_CFLAGS cannot undo (they come after it); this
 * file is given with -include, which the compiler reads after every -D.
 */
#undef SQLITE_ENABLE_FTS3
#undef SQLITE_ENABLE_FTS3_PARENTHESIS
#undef SQLITE_ENABLE_RTREE
#define SQLITE_OMIT_JSON 1
#define SQLITE_OMIT_SHARED_CACHE 1

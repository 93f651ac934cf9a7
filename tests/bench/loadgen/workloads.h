#pragma once

// The subcommands. Each reads its flags, runs bounded loops (a duration and a count; every
// request also has transport timeouts), prints one JSON object on stdout and returns the
// process exit status. All traffic goes to 127.0.0.1:--port.

#include "flags.h"

namespace cairn::bench {

// populate: --ns --table --snapshots N [--batch 5000]: create the namespace (if needed) and a
// new table, then commit N snapshots in batches. Setup only.
int Populate(const Flags& flags);
// load: --ns --table [--snapshots all|refs] [--if-none-match] --clients --duration --max:
// loadTable from keep-alive clients.
int LoadTables(const Flags& flags);
// commit: --ns --tables a,b,... --writers --duration --max [--attempts 100]: appends; writer w
// commits to the tables at w, w+writers, ... in turn (one table = a hot table); a 409 reloads
// the table and retries.
int Commit(const Flags& flags);
// create-namespaces: --prefix --clients --duration --max.
int CreateNamespaces(const Flags& flags);
// create-tables: --ns --prefix --clients --duration --max (the namespace must exist).
int CreateTables(const Flags& flags);
// list-tables: --ns --clients --duration --max: whole listings, following next-page-token.
int ListTables(const Flags& flags);
// hold: --conns N --slow K --duration --probe-ms: keeps N extra keep-alive connections open
// (K of them trickle their requests), and every --probe-ms opens a new connection and times
// its first response. Prints {"event":"ready"} once the connections are up, a summary when
// the duration ends or on SIGTERM/SIGINT.
int Hold(const Flags& flags);
// startup: --port [--idle-ms] [--log FILE] -- CMD...: starts CMD, times process start to the
// first 200 from /v1/config, reads its resident memory then and after --idle-ms, stops it.
int Startup(const Flags& flags);
// fsync-floor: --dir --threads --duration [--bytes]: durable small-file creates, done like
// cairn's LocalFileIO (write temp, fdatasync, link, unlink temp, fsync directory).
int FsyncFloor(const Flags& flags);
// cas-floor: --sqlite FILE | --postgres URL, --threads --duration [--mode mutex|group]:
// compare-and-swap UPDATEs of a metadata pointer on the metastore alone; by default each in its
// own transaction on its own connection (SQLite: mutex = threads take turns in-process, group =
// one committer batches all pending swaps into one transaction).
int CasFloor(const Flags& flags);
// commit-floor: --dir and the cas-floor flags: per operation one durable new file (as
// fsync-floor) then one CAS (as cas-floor): the physical work of one commit, no HTTP, no JSON.
int CommitFloor(const Flags& flags);

}  // namespace cairn::bench

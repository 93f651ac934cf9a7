"""cairn's side-by-side benchmark: servers, workload plan and report (run_bench.sh runs it)."""

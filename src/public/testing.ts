/** `dynoq/testing` — the harness on your own setup (next commit). */
export {};

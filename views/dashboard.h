/* The live dashboard's entry point: `shardsh --dashboard` (and its batch forms --once, --once --json, -n FRAMES).
 * The collector (views/model/collect.c) builds snapshots from the cluster; the views in views/ only render them. */
#ifndef SHARDSH_DASHBOARD_H
#define SHARDSH_DASHBOARD_H

struct sh_ctx;

/* Runs the dashboard on ctx's connection until the user quits (or the batch frames are done). Returns the process
 * exit status: 0, or 1 when no sample could ever be taken in a batch mode (or there is no terminal for the
 * interactive view). Never calls exit(); restores the terminal on every path. */
int
dashboard_run (struct sh_ctx *ctx);

#endif

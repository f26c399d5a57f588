// Settings from the environment with defaults (parseInt with a radix, a boolean flag, a comma list), the habit of
// container init scripts and cron jobs; process.env values are strings, unset ones undefined.
const warnChunks = parseInt(process.env.CORPUS_WARN_CHUNKS || "3", 10);
const dryRun = (process.env.CORPUS_DRY_RUN || "true").toLowerCase() === "true";
const dbs = (process.env.CORPUS_DBS || "app,logs").split(",").map((s) => s.trim()).filter(Boolean);
print(`warn at ${warnChunks} chunks, dryRun=${dryRun}, dbs=${dbs.join("|")}`);
print("unset variable: " + typeof process.env.CORPUS_SURELY_UNSET);
print("platform is a string: " + (typeof process.platform === "string"));
const cfg = db.getSiblingDB("config");
cfg.collections.find({ _id: { $regex: "^(" + dbs.join("|") + ")\\." } }).sort({ _id: 1 }).forEach((c) => {
  const n = cfg.chunks.countDocuments({ uuid: c.uuid });
  print(`${c._id}: ${n} chunk(s)${n > warnChunks ? " WARN" : ""}`);
});

// A report written to a file with Node's fs and read back (os.tmpdir(), path.join, writeFileSync with an EJSON body,
// existsSync, unlinkSync), the way mongosh's "write scripts" page suggests saving results.
const fs = require("fs");
const path = require("path");
const os = require("os");
const outFile = path.join(os.tmpdir(), "corpus-report-" + process.pid + ".json");
const shards = db.getSiblingDB("config").shards.find({}, { _id: 1 }).sort({ _id: 1 }).toArray();
fs.writeFileSync(outFile, EJSON.stringify({ shards: shards.map((s) => s._id) }, { relaxed: true }) + "\n", "utf8");
print("written: " + fs.existsSync(outFile) + ", bytes > 0: " + (fs.statSync(outFile).size > 0));
const back = JSON.parse(fs.readFileSync(outFile, "utf8"));
print("shards in file: " + back.shards.join(","));
fs.appendFileSync(outFile, "# end\n");
print("lines: " + fs.readFileSync(outFile, "utf8").trim().split("\n").length);
fs.unlinkSync(outFile);
print("removed: " + !fs.existsSync(outFile));
print("basename: " + path.basename(outFile).replace(/[0-9]+/, "N"));

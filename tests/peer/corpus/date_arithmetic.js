// Date arithmetic of retention and report scripts: a cutoff N days back from a fixed day, ISODate literals,
// getTime differences in days, toISOString, and a count of documents older than the cutoff.
var DAY_MS = 24 * 60 * 60 * 1000;
var reportDay = ISODate("2026-03-15T00:00:00Z");
var cutoff = new Date(reportDay.getTime() - 30 * DAY_MS);
print("cutoff: " + cutoff.toISOString());
var start = new Date(Date.UTC(2026, 0, 1));
print("days since start of year: " + Math.floor((reportDay - start) / DAY_MS));
print("month: " + (reportDay.getUTCMonth() + 1) + ", weekday: " + reportDay.getUTCDay());
var logs = db.getSiblingDB("logs");
print("requests before 2026-01-01T00:00:30Z: " +
  logs.requests.countDocuments({ _id: { $lt: ObjectId.createFromTime(Date.UTC(2026, 0, 1, 0, 0, 30) / 1000) } }));
var old = db.getSiblingDB("app").events.countDocuments({ ts: { $lt: new Date(Date.now() + DAY_MS) } });
print("events older than tomorrow: " + old);
print(typeof reportDay, reportDay instanceof Date, JSON.stringify({ at: reportDay }));

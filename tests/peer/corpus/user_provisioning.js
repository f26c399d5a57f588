// Provision an application user only when it is missing (the init-script habit: getUser null check, then createUser
// with roles from a settings object), reporting what happened without stopping on an error.
const settings = { dbName: 'app', user: 'app_rw', pwd: 'not-a-real-secret', roles: ['readWrite'] };

const appdb = db.getSiblingDB(settings.dbName);
let existing = null;
try {
  existing = appdb.getUser(settings.user);
} catch (e) {
  print(`getUser failed: ${e.codeName || e.name}`);
}
if (!existing) {
  try {
    const res = appdb.createUser({
      user: settings.user,
      pwd: settings.pwd,
      roles: settings.roles.map((r) => ({ role: r, db: settings.dbName })),
    });
    print(`User ${settings.user}@${settings.dbName} created: ok=${res.ok}`);
  } catch (e) {
    print(`createUser failed: ${e.message}`);
  }
} else {
  print(`User ${settings.user}@${settings.dbName} already exists, skipping`);
}

// A custom role for the reporting team and a user granted it, in the manual's user-administration style: createRole
// with privileges, createUser, grantRolesToUser, then getRole/getUser to check (each step in try/catch).
var admin = db.getSiblingDB("admin");
function step(label, fn) {
  try {
    var r = fn();
    print(label + ": ok" + (r && r.ok !== undefined ? " " + r.ok : ""));
    return r;
  } catch (e) {
    print(label + ": " + (e.codeName ? e.codeName + " (" + e.code + ")" : e.message));
    return null;
  }
}
step("createRole", function () {
  return admin.createRole({
    role: "reportReader",
    privileges: [{ resource: { db: "app", collection: "" }, actions: ["find", "collStats", "dbStats"] }],
    roles: [],
  });
});
step("createUser", function () {
  return admin.createUser({ user: "reporter", pwd: "changeme", roles: [{ role: "read", db: "logs" }] });
});
step("grantRolesToUser", function () {
  return admin.grantRolesToUser("reporter", [{ role: "reportReader", db: "admin" }]);
});
var role = step("getRole", function () { return admin.getRole("reportReader", { showPrivileges: true }); });
var user = step("getUser", function () { return admin.getUser("reporter"); });
if (user) printjson(user.roles);

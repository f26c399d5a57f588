// Provision the operations team's users and a balancer role through the mongos, idempotently: a second run grants
// instead of creating. Then list what exists, as a runbook's check step does.
const admin = db.getSiblingDB("admin");
if (!admin.getRole("balancerOperator")) {
  admin.createRole({
    role: "balancerOperator",
    privileges: [
      { resource: { db: "config", collection: "settings" }, actions: ["find", "update", "insert"] },
      { resource: { cluster: true }, actions: ["inprog", "killop"] }
    ],
    roles: [{ role: "clusterMonitor", db: "admin" }]
  });
  print("created role balancerOperator");
}
const wanted = [
  { user: "opsReader", roles: ["clusterMonitor"] },
  { user: "opsBalancer", roles: ["balancerOperator", { role: "read", db: "config" }] }
];
wanted.forEach((w) => {
  if (admin.getUser(w.user) === null) {
    admin.createUser({ user: w.user, pwd: "changeme-" + w.user, roles: w.roles });
    print("created user " + w.user);
  } else {
    admin.grantRolesToUser(w.user, w.roles);
    print("granted roles to " + w.user);
  }
});
admin.getUsers().users
  .sort((a, b) => a.user.localeCompare(b.user))
  .forEach((u) => print(u.user, u.roles.map((r) => r.role + "@" + r.db).join(",")));
const role = admin.getRole("balancerOperator", { showPrivileges: true });
if (role) print("balancerOperator:", role.privileges.length, "privileges, inherits", role.inheritedRoles.length);
printjson(admin.getRole("clusterMonitor"));
admin.revokeRolesFromUser("opsBalancer", [{ role: "read", db: "config" }]);
printjson(admin.getUser("opsBalancer").roles);
try {
  admin.dropUser("nobody");
} catch (e) {
  print("dropUser failed:", e.codeName);
}

// A server error stops the script with file:line:col, the server's code and codeName, and exit 1.
const ns = "app.notsharded";
print(`splitting ${ns}`);
for (const m of ["a", "b"]) {
  db.adminCommand({split: ns, middle: {k: m}});
  print("not reached");
}

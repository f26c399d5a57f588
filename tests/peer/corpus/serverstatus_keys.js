// A monitoring agent's probe of serverStatus on a mongos: key=value lines when ok, guarded sections, and the list of
// sections with Object.keys (values that change between runs are only tested, not printed).
var objStatus = db.serverStatus();
if (objStatus.ok == 1) {
  print('process=' + objStatus.process);
  print('uptime_is_number=' + (typeof objStatus.uptime == 'number'));
  print('has_connections=' + (objStatus.connections !== undefined));
  if (objStatus.opcounters) {
    print('opcounters=' + Object.keys(objStatus.opcounters).join(','));
  }
  if (objStatus.sharding) {
    print('sharding_keys=' + Object.keys(objStatus.sharding).sort().join(','));
  }
  var sections = Object.keys(objStatus).filter(function (k) {
    return typeof objStatus[k] == 'object' && objStatus[k] !== null && !(objStatus[k] instanceof Date);
  });
  print('sections_with_opcounters=' + (sections.indexOf('opcounters') >= 0));
} else {
  print('serverStatus failed');
}

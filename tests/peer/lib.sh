# Shared by the mongosh comparisons (compare_sh_helpers.sh, compare_db_methods.sh): what counts as a client's own
# traffic in shardsim's --log-commands log, so both clients' command documents can be compared line for line.

# normalise LOG: the commands of a log slice, one { db, cmd } per line. Dropped as driver traffic: the handshake and
# monitoring hellos, mongosh's start-up queries (buildInfo unless KEEP_BUILDINFO=1, the atlascli aggregate,
# getParameter, atlasVersion, getLog), endSessions, getMore, killCursors, and the envelope (lsid, $clusterTime,
# txnNumber, $db). Values that depend on the moment or the client are replaced by placeholders: a new ObjectId _id of
# an insert, the changelog window ("yesterday") and sh.status's mongos window (newest ping - 60 s).
normalise() {
   jq -c --arg keepbi "${KEEP_BUILDINFO:-}" 'select(.op == "OP_MSG")
      | .cmd as $c | ($c | keys_unsorted[0]) as $name
      | select(($name | IN("isMaster", "ismaster", "endSessions", "getMore", "killCursors",
                           "atlasVersion", "getParameter", "getLog")) | not)
      | select((($name | IN("buildInfo", "buildinfo")) | not) or ($keepbi == "1"))
      | select(($name == "hello" and ($c | has("helloOk") or has("topologyVersion") or has("client")
                                         or has("maxAwaitTimeMS"))) | not)
      | select(($name == "aggregate" and $c.aggregate == "atlascli") | not)
      | { db: .db, cmd: ($c | del(.lsid, ."$clusterTime", .txnNumber, ."$db")) }
      | if .cmd.insert then .cmd.documents |= map(if (._id | type) == "object" and (._id | has("$oid"))
                                                    then ._id = "<new ObjectId>" else . end) else . end
      | if .cmd.aggregate == "changelog" then .cmd.pipeline[0]["$match"].time["$gt"] = "<yesterday>" else . end
      | if .cmd.aggregate == "mongos" then .cmd.pipeline[0]["$match"].ping["$gt"] = "<newest ping - 60 s>" else . end
      | if .cmd.find == "mongos" and (.cmd.filter.ping | type) == "object" then .cmd.filter.ping["$gt"] = "<newest ping - 60 s>"
        else . end' "$1"
}

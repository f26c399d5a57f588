// BSON values as scripts build and print them: NumberInt/NumberLong/NumberDecimal and their toString/toNumber,
// ObjectId from a fixed hex (str, getTimestamp), UUID (toString with an encoding, sub_type), Timestamp, BinData,
// and typeof/instanceof checks.
var i = NumberInt(42), l = NumberLong("9007199254740993"), d = NumberDecimal("12.50");
print(i, l, d);
print(typeof i, typeof l, l.toString(), d.toString());
print("long toNumber: " + NumberLong(123).toNumber());
var oid = ObjectId("65a1b2c3d4e5f60718293a4b");
print(oid.str, oid.toHexString(), oid.getTimestamp().toISOString());
print(oid.equals(ObjectId("65a1b2c3d4e5f60718293a4b")), oid instanceof ObjectId);
var u = UUID("0e0d4f1a-2b3c-4d5e-8f90-a1b2c3d4e5f6");
print(u.toString("hex"), u.toString("base64"), u.sub_type, typeof u.hex);
print("raw toString length: " + u.toString().length);
printjson({ i: i, l: l, d: d, ts: Timestamp({ t: 1700000000, i: 3 }), bin: BinData(0, "AQID"), max: MaxKey });
print(JSON.stringify({ i: i, d: d }));
print("sum of ints: " + (NumberInt(2) + NumberInt(3)));

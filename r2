{
  ok: 1,
  '$clusterTime': {
    clusterTime: Timestamp({ t: 1795605892, i: 3 }),
    signature: {
      hash: Binary.createFromBase64('AAAAAAAAAAAAAAAAAAAAAAAAAAA=', 0),
      keyId: Long('0')
    }
  },
  operationTime: Timestamp({ t: 1795605892, i: 3 })
}

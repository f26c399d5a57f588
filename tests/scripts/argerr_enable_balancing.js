sh.enableBalancing(5)

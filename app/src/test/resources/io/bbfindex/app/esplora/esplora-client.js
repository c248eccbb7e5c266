// Drives the unmodified @mempool/mempool.js client against a bbf-index server and prints what the
// library returned, one JSON document on stdout; EsploraClientTest checks it.
// usage: node esplora-client.js HOST:PORT '["txid", ...]'
const mempoolJS = require('@mempool/mempool.js');

async function main() {
  const [hostname, txidsJson] = process.argv.slice(2);
  const { bitcoin: { transactions, blocks } } = mempoolJS({ hostname, protocol: 'http' });
  const out = { txs: {}, headers: {}, tipHeight: null, tipHash: null };
  for (const txid of JSON.parse(txidsJson)) {
    const tx = await transactions.getTx({ txid });
    const status = await transactions.getTxStatus({ txid });
    const hex = await transactions.getTxHex({ txid });
    const merkleProof = await transactions.getTxMerkleProof({ txid });
    const merkleBlockProof = await transactions.getTxMerkleBlockProof({ txid });
    out.txs[txid] = { tx, status, hex, merkleProof, merkleBlockProof };
    if (status.confirmed && !(status.block_hash in out.headers)) {
      out.headers[status.block_hash] = await blocks.getBlockHeader({ hash: status.block_hash });
    }
  }
  out.tipHeight = await blocks.getBlocksTipHeight();
  out.tipHash = await blocks.getBlocksTipHash();
  out.tipByHeight = await blocks.getBlockHeight({ height: Number(out.tipHeight) });
  let unknown;
  try {
    await transactions.getTxStatus({ txid: '00'.repeat(32) });
    unknown = 'answered';
  } catch (e) {
    unknown = e.response ? e.response.status : String(e);
  }
  out.unknownStatus = unknown;
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  process.stderr.write('esplora client failed: ' + (e.stack || e) + '\n');
  process.exit(1);
});

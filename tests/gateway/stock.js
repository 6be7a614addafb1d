// A stock quote service in rpc/literal style, a real SOAP server for the
// importer's and the gateway's tests: node-soap serving stock-rpc.wsdl at
// /stock; a price grows by 1% a day of the window asked for.
//
//   node stock.js [PORT]
'use strict';

const fs = require('fs');
const http = require('http');
const path = require('path');
const soap = require('soap');

const port = Number(process.argv[2] || 4040);
const wsdl = fs.readFileSync(path.join(__dirname, 'stock-rpc.wsdl'), 'utf8');
const PRICES = { ACME: 12.5, INIT: 3.25 };

const services = {
  StockService: {
    StockPort: {
      GetQuote(args) {
        if (!Object.hasOwn(PRICES, args.symbol)) {
          throw { Fault: { faultcode: 'soap:Client', faultstring: `No stock ${args.symbol} is listed.`, statusCode: 500 } };
        }
        const days = args.window && args.window.days !== undefined ? Number(args.window.days) : 1;
        return { quote: { symbol: args.symbol, price: (PRICES[args.symbol] * (1 + days / 100)).toFixed(2), days } };
      },
      Ping() {
        return { ok: true };
      },
    },
  },
};

const server = http.createServer((req, res) => {
  res.writeHead(404);
  res.end();
});
server.listen(port, '127.0.0.1', () => {
  soap.listen(server, { path: '/stock', services, xml: wsdl });
  console.log(`stock quote SOAP service (rpc/literal) on http://127.0.0.1:${port}/stock`);
});

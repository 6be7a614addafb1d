// Pets Inc.'s pet insurance service, a real SOAP server for the gateway
// example and tests: node-soap (the `soap` package) serving the vendored
// WSDL, SOAP 1.1 at /insurance and SOAP 1.2 at /insurance12. Besides:
// /insurance-slow answers after three seconds, /broken answers a truncated
// envelope, /xxe an envelope that declares an external entity.
//
//   node insurance.js [PORT] [WSDL]
'use strict';

const fs = require('fs');
const http = require('http');
const path = require('path');
const soap = require('soap');

const port = Number(process.argv[2] || 4030);
const wsdlPath = process.argv[3] || path.join(__dirname, '..', '..', 'examples', 'rest-gateway', 'insurance.wsdl');
const wsdl = fs.readFileSync(wsdlPath, 'utf8');

const BASE_PREMIUM = { dog: 18.5, cat: 12.0, rabbit: 7.25 };

// Policies by number; cancelling changes their status.
const policies = new Map([
  ['PI-000123', { owner: 'ana@example.com', pet: 'Rex', species: 'dog', since: '2024-03-01', monthlyPremium: 21.4, status: 'active' }],
  ['PI-000124', { owner: 'ana@example.com', pet: 'Mia', species: 'cat', since: '2025-06-15', monthlyPremium: 12.9, status: 'active' }],
]);

function fault(v12, sender, text) {
  if (v12) {
    return { Fault: { Code: { Value: sender ? 'soap:Sender' : 'soap:Receiver' }, Reason: { Text: text }, statusCode: 500 } };
  }
  return { Fault: { faultcode: sender ? 'soap:Client' : 'soap:Server', faultstring: text, statusCode: 500 } };
}

function operations(v12) {
  return {
    GetQuote(args, callback, headers, req) {
      const age = Number(args.ageYears);
      const amount = Number(args.coverage.amount);
      if (!(args.species in BASE_PREMIUM)) {
        throw fault(v12, true, `Species ${args.species} is not insured.`);
      }
      const extras = [].concat(args.extra || []);
      const premium = BASE_PREMIUM[args.species] * (1 + age / 10) * (amount / 5000) + 2.5 * extras.length;
      const exclusion = ['hereditary conditions'];
      if (!extras.includes('dental')) {
        exclusion.push('dental care');
      }
      const answer = {
        quote: {
          attributes: { currency: args.coverage.attributes ? args.coverage.attributes.currency : 'EUR' },
          monthlyPremium: premium.toFixed(2),
          validUntil: '2026-12-31',
          exclusion,
        },
      };
      if (req && req.url.startsWith('/insurance-slow')) {
        return new Promise((resolve) => setTimeout(() => resolve(answer), 3000));
      }
      return answer;
    },
    ListPolicies(args) {
      const policy = [...policies.entries()]
        .filter(([, p]) => p.owner === args.ownerEmail)
        .map(([number, p]) => ({
          attributes: { number, status: p.status },
          pet: p.pet,
          species: p.species,
          since: p.since,
          monthlyPremium: p.monthlyPremium.toFixed(2),
        }));
      return { policy };
    },
    CancelPolicy(args) {
      const policy = policies.get(args.policyNumber);
      if (!policy) {
        throw fault(v12, true, `No policy ${args.policyNumber} exists.`);
      }
      if (policy.status === 'cancelled') {
        throw fault(v12, true, `Policy ${args.policyNumber} is already cancelled.`);
      }
      policy.status = 'cancelled';
      return { cancelled: true, effectiveDate: '2026-12-31' };
    },
    FileClaim() {
      throw fault(v12, false, 'Claims are not accepted in this test service.');
    },
  };
}

const ENVELOPE = 'http://schemas.xmlsoap.org/soap/envelope/';

// Answers no SOAP library would send: only here to be refused.
const server = http.createServer((req, res) => {
  const send = (body) => {
    res.writeHead(200, { 'Content-Type': 'text/xml; charset=utf-8' });
    res.end(body);
  };
  if (req.url.startsWith('/broken')) {
    send(`<?xml version="1.0"?><soap:Envelope xmlns:soap="${ENVELOPE}"><soap:Body><GetQuoteResponse><quote currency="EUR"><monthlyPremium>12`);
  } else if (req.url.startsWith('/xxe')) {
    send(`<?xml version="1.0"?><!DOCTYPE soap:Envelope [<!ENTITY secret SYSTEM "file:///etc/passwd">]><soap:Envelope xmlns:soap="${ENVELOPE}"><soap:Body><GetQuoteResponse><quote currency="EUR"><monthlyPremium>&secret;</monthlyPremium><validUntil>2026-12-31</validUntil></quote></GetQuoteResponse></soap:Body></soap:Envelope>`);
  } else {
    res.writeHead(404);
    res.end();
  }
});

const services = {
  PetInsuranceService: {
    PetInsuranceSoap: operations(false),
    PetInsuranceSoap12: operations(true),
  },
};

server.listen(port, '127.0.0.1', () => {
  soap.listen(server, { path: '/insurance', services, xml: wsdl });
  soap.listen(server, { path: '/insurance-slow', services, xml: wsdl });
  soap.listen(server, { path: '/insurance12', services, xml: wsdl, forceSoap12Headers: true });
  console.log(`pet insurance SOAP service on http://127.0.0.1:${port}/insurance (1.1) and /insurance12 (1.2)`);
});

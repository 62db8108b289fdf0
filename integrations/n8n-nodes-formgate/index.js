// n8n loads the files listed under "n8n" in package.json; this entry point only keeps `require('n8n-nodes-formgate')` from failing.
module.exports = {};

-- POST /www/auftrag for bench/orders.py: every request a new order of a random demo customer with
-- POSITIONS random priced articles, its own AuftBestellNr and Idempotency-Key (as a shop sends them).
-- bench/orders.py fills in the globals below (TOKEN, PREFIX, CUSTOMERS, ARTICLES, POSITIONS) before
-- the script, and reads the line "RESULT {...}" that done() prints.

local threads = {}
local counter = 0

function setup(thread)
   thread:set("tid", #threads + 1)
   table.insert(threads, thread)
end

function init(args)
   math.randomseed(tid * 7919)
   statuses = {}
end

function request()
   counter = counter + 1
   local reference = string.format("%s%d-%d", PREFIX, tid, counter)
   local positions = {}
   for i = 1, POSITIONS do
      local article = ARTICLES[math.random(#ARTICLES)]
      positions[i] = string.format('{"ArtNr":"%s","Menge":%d}', article, math.random(1, 5))
   end
   local body = string.format(
      '{"GrundDaten":{"KundNr":"%s","AuftBestellNr":"%s"},"Positionen":[%s]}',
      CUSTOMERS[math.random(#CUSTOMERS)], reference, table.concat(positions, ",")
   )
   local headers = {
      ["Authorization"] = "Bearer " .. TOKEN,
      ["Content-Type"] = "application/json",
      ["Idempotency-Key"] = reference,
   }
   return wrk.format("POST", "/www/auftrag", headers, body)
end

function response(status, headers, body)
   local key = tostring(status)
   statuses[key] = (statuses[key] or 0) + 1
end

function done(summary, latency, requests)
   local counts = {}
   for _, thread in ipairs(threads) do
      for status, n in pairs(thread:get("statuses")) do
         counts[status] = (counts[status] or 0) + n
      end
   end
   local parts = {}
   for status, n in pairs(counts) do
      table.insert(parts, string.format('"%s":%d', status, n))
   end
   local errors = summary.errors
   io.write(string.format(
      'RESULT {"requests":%d,"seconds":%f,"p50_ms":%f,"p99_ms":%f,"max_ms":%f,"statuses":{%s},' ..
      '"socket_errors":%d}\n',
      summary.requests, summary.duration / 1e6, latency:percentile(50) / 1e3, latency:percentile(99) / 1e3,
      latency.max / 1e3, table.concat(parts, ","),
      errors.connect + errors.read + errors.write + errors.timeout
   ))
end

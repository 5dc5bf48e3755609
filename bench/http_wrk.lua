-- GET requests for bench/http_catalogue.py: the paths of PATHS in turn (each thread starting at its own place), with
-- the header AUTHORIZATION when it is set. bench/http_catalogue.py fills in the globals below (PATHS, AUTHORIZATION)
-- before the script, and reads the line "RESULT {...}" that done() prints.

local threads = {}

function setup(thread)
   thread:set("tid", #threads + 1)
   table.insert(threads, thread)
end

function init(args)
   statuses = {}
   -- Formatted once: the requests cost wrk nothing per request but copying them.
   local headers = {}
   if AUTHORIZATION then
      headers["Authorization"] = AUTHORIZATION
   end
   prepared = {}
   for i, path in ipairs(PATHS) do
      prepared[i] = wrk.format("GET", path, headers)
   end
   counter = tid * 7919
end

function request()
   counter = counter + 1
   return prepared[counter % #prepared + 1]
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

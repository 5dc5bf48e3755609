-- GET requests for bench/http_catalogue/main.py: the paths of PATHS in turn (each thread starting at its own place), with
-- the header AUTHORIZATION when it is set. bench/http_catalogue/main.py fills in the globals below (PATHS, AUTHORIZATION)
-- before the script; bench/common/wrk_result.lua, appended, counts the statuses and prints the result.

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

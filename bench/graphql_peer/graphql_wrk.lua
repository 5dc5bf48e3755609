-- POST /graphql for bench/graphql_peer: the bodies of BODIES in turn (each thread starting at its own place), with
-- the header AUTHORIZATION when it is set. The bench fills in the globals (BODIES, AUTHORIZATION) before the
-- script; bench/wrk_result.lua, appended, counts the statuses and prints the result.

function init(args)
   statuses = {}
   local headers = {["Content-Type"] = "application/json"}
   if AUTHORIZATION then
      headers["Authorization"] = AUTHORIZATION
   end
   prepared = {}
   for i, body in ipairs(BODIES) do
      prepared[i] = wrk.format("POST", "/graphql", headers, body)
   end
   counter = tid * 7919
end

function request()
   counter = counter + 1
   return prepared[counter % #prepared + 1]
end

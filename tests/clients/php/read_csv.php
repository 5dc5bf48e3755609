<?php
// Reads a CSV file with fgetcsv, as a PHP shop or report would, and prints its rows as JSON.
$handle = fopen($argv[1], 'r');
$rows = [];
while (($row = fgetcsv($handle, null, ',', '"', '')) !== false) {
    $rows[] = $row;
}
fclose($handle);
echo json_encode($rows, JSON_UNESCAPED_UNICODE);

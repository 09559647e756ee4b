package report

// SettingsLine is settingsLine, for the tests.
var SettingsLine = settingsLine

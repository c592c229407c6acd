<?xml version="1.0" encoding="UTF-8"?>
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:mmax="org.eml.MMAX2.discourse.MMAX2DiscourseLoader">
<xsl:output method="text" indent="no" omit-xml-declaration="yes"/>
<xsl:template match="word"><xsl:value-of select="mmax:registerDiscourseElement(@id)"/><xsl:apply-templates select="mmax:getStartedMarkables(@id)" mode="opening"/><xsl:value-of select="mmax:setDiscourseElementStart()"/><xsl:apply-templates/><xsl:value-of select="mmax:setDiscourseElementEnd()"/><xsl:apply-templates select="mmax:getEndedMarkables(@id)" mode="closing"/><xsl:text> </xsl:text></xsl:template>
</xsl:stylesheet>

<?xml version="1.0" encoding="UTF-8"?>
<!--
  raf-to-html.xsl: render a corefio RAF 2.0 file as a readable HTML page.

  For every document: the text, with every markable bracketed and coloured by its
  chain, then the list of chains. XSLT 1.0 without extensions, so that lxml
  (corefio view) and plain `xsltproc raf-to-html.xsl file.raf.xml` give the same page.

  Linear in the size of the document: each word is visited once, in one pass over the
  words of its document (position() is the word's number, which is how spans name
  words); the brackets that open and close at a word come from keys on the span
  attributes; the members of a chain from a key on the chain attribute, and their text
  from a key on the word numbers (n) the writer records. Nothing is counted along
  preceding:: axes.

  Chains are not computed here: the RAF writer records each markable's chain number
  (corefio's closure of identity links and shared entities) in its chain attribute,
  and this page shows it. Chain k gets the hue k × 137.508° (the golden angle), so
  neighbouring chains get clearly different colours.

  Only RAF 2.0 files are shown (`corefio convert old.raf.xml new.raf.xml` upgrades a
  1.0 file).
-->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="html" encoding="UTF-8" indent="no" doctype-system="about:legacy-compat"/>

  <!-- spans ("3" or "3..7", word numbers from 1), scoped to their document -->
  <xsl:key name="open" match="struct[@type='markable']/@span | feat[@type='span']/@span"
    use="concat(generate-id(ancestor::struct[@type='document'][1]), '#', substring-before(concat(., '..'), '..'))"/>
  <xsl:key name="close" match="struct[@type='markable']/@span | feat[@type='span']/@span"
    use="concat(generate-id(ancestor::struct[@type='document'][1]), '#', substring-after(., '..'), substring(., 1 div not(contains(., '..'))))"/>
  <xsl:key name="chain" match="struct[@type='markable'][@chain]" use="concat(generate-id(..), '#', @chain)"/>
  <!-- words by number (n), for the text of chain members -->
  <xsl:key name="word" match="w" use="concat(generate-id(ancestor::struct[@type='document'][1]), '#', @n)"/>

  <xsl:template match="/">
    <html lang="en">
      <head>
        <meta charset="utf-8"/>
        <title>corefio: <xsl:value-of select="count(struct/struct[@type='document'])"/> document(s)</title>
        <style>
          body { font-family: Georgia, serif; max-width: 60em; margin: 2em auto; line-height: 1.9; }
          h1, h2 { font-family: sans-serif; }
          .open, .close { font-family: monospace; font-weight: bold; }
          .close sub { font-size: 70%; }
          ol.chains li { margin-bottom: .3em; }
          .meta { color: #555; font-family: sans-serif; font-size: 90%; }
          .nochain { color: #777; }
        </style>
      </head>
      <body>
        <xsl:apply-templates select="struct[@type='reference_annotation_collection']/struct[@type='document']"/>
      </body>
    </html>
  </xsl:template>

  <xsl:template match="struct[@type='document']">
    <xsl:variable name="D" select="generate-id(.)"/>
    <xsl:variable name="P" select="position()"/>
    <section class="document" id="doc-{$P}">
      <h1>
        <xsl:text>Document </xsl:text>
        <xsl:value-of select="@name"/>
        <xsl:if test="@part"> (part <xsl:value-of select="@part"/>)</xsl:if>
      </h1>
      <p class="meta">
        <span class="n-words"><xsl:value-of select="count(struct[@type='primary_data']/w | struct[@type='primary_data']/struct/w)"/></span> words,
        <span class="n-markables"><xsl:value-of select="count(struct[@type='markable'])"/></span> markables,
        <span class="n-links"><xsl:value-of select="count(struct[@type='reflink'])"/></span> links.
      </p>
      <h2>Text</h2>
      <div class="text">
        <xsl:for-each select="struct[@type='primary_data']/w | struct[@type='primary_data']/struct/w">
          <xsl:variable name="k" select="concat($D, '#', position())"/>
          <xsl:if test="position() &gt; 1 and parent::struct and not(preceding-sibling::*[1][self::w])">
            <br class="sentence-break"/>
          </xsl:if>
          <!-- spans opening here, longest first -->
          <xsl:for-each select="key('open', $k)">
            <xsl:sort select="concat(substring-after(., '..'), substring(., 1 div not(contains(., '..'))))"
              data-type="number" order="descending"/>
            <xsl:call-template name="bracket">
              <xsl:with-param name="P" select="$P"/>
              <xsl:with-param name="open" select="true()"/>
            </xsl:call-template>
          </xsl:for-each>
          <span class="word"><xsl:value-of select="."/></span>
          <!-- spans closing here, shortest (latest opened) first -->
          <xsl:for-each select="key('close', $k)">
            <xsl:sort select="substring-before(concat(., '..'), '..')" data-type="number" order="descending"/>
            <xsl:call-template name="bracket">
              <xsl:with-param name="P" select="$P"/>
              <xsl:with-param name="open" select="false()"/>
            </xsl:call-template>
          </xsl:for-each>
          <xsl:choose>
            <xsl:when test="@ws"><xsl:value-of select="@ws"/></xsl:when>
            <xsl:otherwise><xsl:text> </xsl:text></xsl:otherwise>
          </xsl:choose>
        </xsl:for-each>
      </div>
      <h2>Chains</h2>
      <ol class="chains">
        <xsl:for-each select="struct[@type='markable'][@chain][count(. | key('chain', concat($D, '#', @chain))[1]) = 1]">
          <xsl:variable name="members" select="key('chain', concat($D, '#', @chain))"/>
          <li class="chain c{@chain}" data-chain="{@chain}" data-size="{count($members)}">
            <xsl:attribute name="style"><xsl:call-template name="colour"/></xsl:attribute>
            <strong>chain <xsl:value-of select="@chain"/></strong>
            <xsl:text> (</xsl:text><xsl:value-of select="count($members)"/><xsl:text>): </xsl:text>
            <xsl:for-each select="$members">
              <xsl:if test="position() &gt; 1"><xsl:text> | </xsl:text></xsl:if>
              <a class="member" href="#d{$P}-{@layer}-{@id}" data-markable="{@id}" title="{@id}">
                <xsl:for-each select="@span | feat[@type='span']/@span">
                  <xsl:if test="position() &gt; 1"><xsl:text> … </xsl:text></xsl:if>
                  <xsl:call-template name="words">
                    <xsl:with-param name="D" select="$D"/>
                    <xsl:with-param name="a" select="number(substring-before(concat(., '..'), '..'))"/>
                    <xsl:with-param name="b" select="number(concat(substring-after(., '..'), substring(., 1 div not(contains(., '..')))))"/>
                  </xsl:call-template>
                </xsl:for-each>
              </a>
            </xsl:for-each>
          </li>
        </xsl:for-each>
      </ol>
    </section>
  </xsl:template>

  <!-- the text of words $a..$b (numbers) of document $D: halves recursively, so the
       depth is the logarithm of the span's length; each word is one key lookup -->
  <xsl:template name="words">
    <xsl:param name="D"/>
    <xsl:param name="a"/>
    <xsl:param name="b"/>
    <xsl:choose>
      <xsl:when test="$a = $b">
        <xsl:value-of select="key('word', concat($D, '#', $a))"/>
      </xsl:when>
      <xsl:when test="$a &lt; $b">
        <xsl:variable name="m" select="floor(($a + $b) div 2)"/>
        <xsl:call-template name="words">
          <xsl:with-param name="D" select="$D"/>
          <xsl:with-param name="a" select="$a"/>
          <xsl:with-param name="b" select="$m"/>
        </xsl:call-template>
        <xsl:for-each select="key('word', concat($D, '#', $m))">
          <xsl:choose>
            <xsl:when test="@ws"><xsl:value-of select="@ws"/></xsl:when>
            <xsl:otherwise><xsl:text> </xsl:text></xsl:otherwise>
          </xsl:choose>
        </xsl:for-each>
        <xsl:call-template name="words">
          <xsl:with-param name="D" select="$D"/>
          <xsl:with-param name="a" select="$m + 1"/>
          <xsl:with-param name="b" select="$b"/>
        </xsl:call-template>
      </xsl:when>
    </xsl:choose>
  </xsl:template>

  <!-- golden-angle hue of the chain number of the context markable -->
  <xsl:template name="colour">
    <xsl:text>color: hsl(</xsl:text>
    <xsl:value-of select="format-number((@chain * 137.508) mod 360, '0')"/>
    <xsl:text>, 70%, 36%)</xsl:text>
  </xsl:template>

  <!-- one bracket; the context node is a span attribute (of a markable or of one of
       its span feats) -->
  <xsl:template name="bracket">
    <xsl:param name="P"/>
    <xsl:param name="open"/>
    <xsl:variable name="first-part" select="not(parent::feat) or not(../preceding-sibling::*[1][self::feat][@type='span'])"/>
    <xsl:for-each select="ancestor::struct[@type='markable'][1]">
      <xsl:variable name="class">
        <xsl:choose>
          <xsl:when test="@chain">c<xsl:value-of select="@chain"/></xsl:when>
          <xsl:otherwise>nochain</xsl:otherwise>
        </xsl:choose>
      </xsl:variable>
      <xsl:variable name="label">
        <xsl:choose>
          <xsl:when test="@chain"><xsl:value-of select="@chain"/></xsl:when>
          <xsl:otherwise><xsl:value-of select="@layer"/>:<xsl:value-of select="@id"/></xsl:otherwise>
        </xsl:choose>
      </xsl:variable>
      <xsl:choose>
        <xsl:when test="$open">
          <span class="open {$class}" data-markable="{@id}" data-chain="{@chain}" title="{@id} (chain {$label})">
            <xsl:if test="$first-part">
              <xsl:attribute name="id">d<xsl:value-of select="$P"/>-<xsl:value-of select="@layer"/>-<xsl:value-of select="@id"/></xsl:attribute>
            </xsl:if>
            <xsl:if test="@chain"><xsl:attribute name="style"><xsl:call-template name="colour"/></xsl:attribute></xsl:if>
            <xsl:text>[</xsl:text>
          </span>
        </xsl:when>
        <xsl:otherwise>
          <span class="close {$class}" data-markable="{@id}" data-chain="{@chain}">
            <xsl:if test="@chain"><xsl:attribute name="style"><xsl:call-template name="colour"/></xsl:attribute></xsl:if>
            <xsl:text>]</xsl:text><sub><xsl:value-of select="$label"/></sub>
          </span>
        </xsl:otherwise>
      </xsl:choose>
    </xsl:for-each>
  </xsl:template>
</xsl:stylesheet>
